"""Fuzzing every input surface a user or a device feeds: ``battleline-companion bench fuzz``."""
