// The host's invite link on a private table: a button copies it.
document.addEventListener("click", function (event) {
  var button = event.target.closest("[data-copy-target]");
  if (!button) return;
  var input = document.getElementById(button.getAttribute("data-copy-target"));
  if (!input) return;
  var done = function () {
    button.textContent = button.getAttribute("data-copied") || button.textContent;
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(done, function () {
      input.select();
    });
  } else {
    input.select();
    if (document.execCommand && document.execCommand("copy")) done();
  }
});
