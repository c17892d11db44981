"""Directors in the admin: a member of the "Tournament directors" group is staff.

The group carries the admin permissions on the tournaments models (migration
0002), but the admin lets in staff only; so joining the group makes a person
staff, and leaving it ends that, unless he is a superuser or holds other
permissions (another group, or permissions of his own) that staff status serves.
The admin still shows him only what the group's permissions allow: the event
pages, not the users.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

DIRECTORS_GROUP = "Tournament directors"


def do_sync_director_staff(*, user_ids) -> None:
    """Members of the directors' group are staff; people who left it (and have no other
    reason to be staff) are not. One transaction; `user_ids` are the people to look at."""
    User = get_user_model()
    with transaction.atomic():
        for user in User.objects.select_for_update(of=("self",)).filter(pk__in=list(user_ids)):
            director = user.groups.filter(name=DIRECTORS_GROUP).exists()
            if director and not user.is_staff:
                user.is_staff = True
                user.save(update_fields=["is_staff"])
            elif not director and user.is_staff and not user.is_superuser:
                if not user.groups.exists() and not user.user_permissions.exists():
                    user.is_staff = False
                    user.save(update_fields=["is_staff"])


def on_groups_changed(sender, instance, action, reverse, model, pk_set, **kwargs):
    """m2m_changed of User.groups (connected in TournamentsConfig.ready), from either side:
    `user.groups.add(group)` and `group.user_set.add(user)`."""
    if action not in ("post_add", "post_remove", "pre_clear", "post_clear"):
        return
    if not reverse:  # instance is a user, pk_set are groups
        if action == "pre_clear":
            return
        names = Group.objects.filter(pk__in=pk_set or ()).values_list("name", flat=True)
        if action == "post_clear" or DIRECTORS_GROUP in names:
            do_sync_director_staff(user_ids=[instance.pk])
        return
    if instance.name != DIRECTORS_GROUP:  # instance is a group, pk_set are users
        return
    if action == "pre_clear":  # who was in it, before group.user_set.clear()
        instance._members_before_clear = list(instance.user_set.values_list("pk", flat=True))
        return
    if action == "post_clear":
        pk_set = getattr(instance, "_members_before_clear", [])
    do_sync_director_staff(user_ids=pk_set or [])


def on_post_migrate(sender, using="default", **kwargs):
    """After `migrate` (connected in TournamentsConfig.ready): people who were in the
    group before joining it made them staff (or were put in without the signal, as a
    fixture or a bulk insert does) become staff too."""
    group = Group.objects.using(using).filter(name=DIRECTORS_GROUP).first()
    if group is not None:
        do_sync_director_staff(user_ids=list(group.user_set.values_list("pk", flat=True)))
