"""The estimator core shared by every method family.

The estimator base (:mod:`~sdrstats.core.estimator`), fitted results
(:mod:`~sdrstats.core.results`), what an estimator declares and returns
(:mod:`~sdrstats.core.contract`), option validation, printed summaries and their presentation,
warning classes, random streams and parallel loops, and the builder of formula functions.
"""
