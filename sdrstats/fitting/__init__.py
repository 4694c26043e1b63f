"""How a fit is asked for: the estimator base class and the formula functions' front.

:class:`~sdrstats.fitting.estimator.Estimator` (options in, results out; a family subclasses
it) and what every formula function shares (:mod:`~sdrstats.fitting.formula_functions`). A
formula call's data go to the fit from here: a frame in memory, or chunks and Dask partitions
through :mod:`sdrstats.scale`.
"""
