"""The simulated table: scenes with their truth, for the demo, the tests and the benches.

``synth`` lays and photographs a table, ``camera_model`` is its camera, ``room`` the
light, table and hands around the mat, and ``photos`` a player's phone photos of one
card for enrolment."""
