"""The companion's benchmarks (``battleline-companion bench rules|loop|soak``): each prints
one JSON object of figures."""
