"""Supervised PCA family (seed 002): SPCA, kernel SPCA, Bair's supervised PCA, KDR."""

from .kspca import KSPCA, KSPCAResults, kspca
from .spca import SPCA, SPCAResults, spca

__all__ = ["SPCA", "SPCAResults", "spca", "KSPCA", "KSPCAResults", "kspca"]
