"""Supervised PCA family (Barshan et al. 2011): SPCA, kernel SPCA, Bair's supervised PCA, KDR
and manifold KDR (Nilsson, Sha & Jordan 2007; new rows by the Nyström extension of its
Laplacian eigenmap)."""

from .bpca import BPCA, BPCAResults, bpca
from .kdr import KDR, KDRResults, kdr
from .kspca import KSPCA, KSPCAResults, kspca
from .mkdr import MKDR, MKDRResults, mkdr
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
    "MKDR",
    "MKDRResults",
    "mkdr",
]
