"""Saints by name: the merged index behind ``saint_lookup``, its name matching and
the authored table of popular names."""
