from django.urls import include, path

from games.accounts import urls as accounts_urls
from games.lobby import urls as lobby_urls
from games.records import urls as records_urls
from games.table import urls as table_urls

app_name = "games"

urlpatterns = [
    path("", include(lobby_urls)),
    path("", include(table_urls)),
    path("", include(accounts_urls)),
    path("", include(records_urls)),
]
