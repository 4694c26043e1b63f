"""Optimisers shared by the criterion-based SDR methods (LSCE, LSMI, KDR)."""

from .grassmann import GrassmannResult, geodesic, grassmann_minimize, random_orthonormal_rows

__all__ = ["GrassmannResult", "geodesic", "grassmann_minimize", "random_orthonormal_rows"]
