"""The case generators of ``corpora/cases/make_cases.py``, one module per collection of corpus
kernels."""
