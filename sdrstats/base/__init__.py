"""The bottom layer: what every other layer builds on and nothing here builds on them.

Option validation and parameter constraints (:mod:`~sdrstats.base.validation`), warning
classes (:mod:`~sdrstats.base.warnings`), random streams and parallel loops
(:mod:`~sdrstats.base.parallel`), the memory and time budget (:mod:`~sdrstats.base.budget`),
the registry and file format of saved objects (:mod:`~sdrstats.base.persistence`), what an
estimator declares and returns (:mod:`~sdrstats.base.contract`) and the text, HTML and LaTeX
tables every printed summary is made of (:mod:`~sdrstats.base.tables`).
"""
