"""Views of the companion: the terminal view (the touchscreen view is still to come)."""
