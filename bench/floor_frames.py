"""What `tables` (the client) and `floor` (the application daphne serves) agree on.

Its own module so that neither imports the other: `floor` sets Django up when it
is imported, and `tables` only needs these names to start it.
"""

FLOOR_APPLICATION = "bench.floor:application"
FLOOR_FRAME_BYTES_ENV = "DURAK_FLOOR_FRAME_BYTES"  # the floor's frame size, read by bench.floor
DEFAULT_FLOOR_FRAME_BYTES = 8192  # about the site's state frames (its report prints their mean size)
