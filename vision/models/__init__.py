"""A deck's learnt models, trained at enrolment and kept in its profile.

``band_model`` names an index band, ``face_model`` a whole face, ``learnt`` trains
both, and ``covariance`` is their discriminants' shrunk covariance."""
