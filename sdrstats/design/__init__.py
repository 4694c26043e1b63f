"""The formula and array fronts: a formula or arrays and a data frame become a model spec.

Modules: :mod:`~sdrstats.design.formula` (patsy formulas, R's ``model.frame`` rules),
:mod:`~sdrstats.design.arrays` (predictor matrices), :mod:`~sdrstats.design.spec` (the
:class:`~sdrstats.design.spec.ModelSpec` every fit carries), :mod:`~sdrstats.design.checks`
(input checks and their messages), :mod:`~sdrstats.design.weights` (R ``dr``'s case weights),
:mod:`~sdrstats.design.plan` (a formula parsed once and applied to every chunk, partition or
stream batch) and :mod:`~sdrstats.design.calls` (the ``Call:`` line every fit records).
"""
