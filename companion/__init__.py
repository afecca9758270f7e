"""Battle Line table companion: reads the table, rules on claims, lights the flags."""

__version__ = "0.1.0"
