"""Enrolling a deck: one photo per card becomes a profile.

``enroll`` runs it, ``outline`` finds a card on any table, ``consensus`` squares the
cards to their shared layout, ``balance`` sets the white balance, and ``workers``
spreads the work over the cores."""
