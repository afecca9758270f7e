"""Views of the companion: the terminal view, and the pygame touchscreen
(``pygame_view.PygameView``, its screens in ``screens`` and ``camera_screen``)."""
