"""Statistical kernels that several method families share.

Slicing as R ``dr`` and Arc do it (in memory and exactly on chunks), grouped sums, the moment
kernels, Gaussian kernels, subspace distances, chi-square helpers, small linear algebra and the
Grassmann optimiser. Nothing here imports a method family.
"""
