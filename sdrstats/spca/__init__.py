"""Supervised PCA family (Barshan et al. 2011): SPCA, kernel SPCA, Bair's supervised PCA, KDR.

mKDR (manifold KDR, Nilsson, Sha & Jordan 2007) is not provided: it learns a map from a
Laplacian-eigenmap embedding of the training rows, which has no out-of-sample extension that
keeps ``transform(newdata)``, bootstrap refits and the shared inference layer sound.
"""

from .bpca import BPCA, BPCAResults, bpca
from .kdr import KDR, KDRResults, kdr
from .kspca import KSPCA, KSPCAResults, kspca
from .spca import SPCA, SPCAResults, spca

__all__ = [
    "SPCA",
    "SPCAResults",
    "spca",
    "KSPCA",
    "KSPCAResults",
    "kspca",
    "BPCA",
    "BPCAResults",
    "bpca",
    "KDR",
    "KDRResults",
    "kdr",
]
