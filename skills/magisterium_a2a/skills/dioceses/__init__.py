"""The diocese directory and its yearly statistics, behind ``diocese_lookup``
and ``diocese_statistics_lookup``.

A built-in directory of the Catholic jurisdictions of the United States
(``data/dioceses-us.yaml``), anything imported on top of it, and statistics
that exist only once an operator imports them (no figures are shipped).
"""
