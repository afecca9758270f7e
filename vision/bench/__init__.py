"""The benches: how well and how fast the reader reads, and how long enrolment takes.

``classic`` reads our own deck; ``decks`` reads generated designs it never saw;
``band_check`` names cut bands alone; ``enrolment`` times enrolling; ``trust_fit``
refits the trust on the tuning designs; ``scoring`` is their shared arithmetic."""
