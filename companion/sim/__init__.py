"""Games without a table: the built-in bots, the simulated table they play on, the
scripted games through the real vision path (``python -m companion.sim.simulate``) and
``battleline-companion botgame``."""
