"""Fitted results: the contract every method keeps.

The results base class (:mod:`~sdrstats.results.fitted`), the fit's printed summary
(:mod:`~sdrstats.results.summary`) and the results' save format (:mod:`~sdrstats.results.io`).
It sits above inference, densities and plots, which it offers as methods of a fit.
"""
