"""The steps of reading a frame (``vision.read`` runs them), a module each."""
