"""IRE's alternating least squares through the Kronecker structure equals the dense weighted
least squares it replaces: each step against its explicit whitened design on small problems."""

import numpy as np
import pytest
import scipy.linalg

from sdrstats.moment._ire_als import (
    Discrepancy,
    _symmetric_from_upper,
    helmert_basis,
    independence_form,
)


def _problem(rng, p, h1):
    """A random ζ (p × h1) and the upper Cholesky factor of a random well-conditioned Γ."""
    N = p * h1
    root = rng.standard_normal((N, N))
    gamma = root @ root.T / N + 0.5 * np.eye(N)
    return rng.standard_normal((p, h1)), scipy.linalg.cholesky(gamma, lower=False)


def _whiten(factor, values):
    """G^{-T} values (values a vector or a matrix of columns), densely."""
    return np.linalg.solve(factor.T, values)


def _vec(a):
    return a.reshape(-1, order="F")


@pytest.fixture(params=[(5, 3, 2, 1), (4, 6, 3, 1), (6, 4, 2, 2)], ids=lambda c: str(c))
def case(request):
    """(p, h1, d, groups): one group is IRE, two are partial IRE (a shared B)."""
    p, h1, d, groups = request.param
    rng = np.random.default_rng(sum(request.param))
    problems = [_problem(rng, p, h1) for _ in range(groups)]
    zetas, factors = [z for z, _ in problems], [G for _, G in problems]
    pooled = groups > 1
    disc = Discrepancy(zetas if pooled else zetas[0], factors if pooled else factors[0], 37.0)
    return disc, zetas, factors, rng, d


def test_value_is_the_dense_quadratic_form(case):
    disc, zetas, factors, rng, d = case
    p = zetas[0].shape[0]
    B = rng.standard_normal((p, d))
    Cs = [rng.standard_normal((d, z.shape[1])) for z in zetas]
    expected = sum(
        _vec(z - B @ C) @ np.linalg.solve(G.T @ G, _vec(z - B @ C))
        for z, G, C in zip(zetas, factors, Cs)
    )
    got = disc.value(B, Cs if disc.pooled else Cs[0])
    np.testing.assert_allclose(got, 37.0 * expected, rtol=1e-10)


def test_c_update_is_the_dense_least_squares_solution(case):
    disc, zetas, factors, rng, d = case
    p = zetas[0].shape[0]
    D = rng.standard_normal((p, d))
    got = disc.update_c(D)
    got = got if disc.pooled else [got]
    for z, G, C in zip(zetas, factors, got):
        h1 = z.shape[1]
        design = _whiten(G, np.kron(np.eye(h1), D))  # vec(D C) = (I ⊗ D) vec C
        coef = np.linalg.lstsq(design, _whiten(G, _vec(z)), rcond=None)[0]
        np.testing.assert_allclose(C, coef.reshape(d, h1, order="F"), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("restricted", [False, True])
def test_b_update_is_the_dense_least_squares_solution(case, restricted):
    """Each column of B in turn (the later ones seeing the earlier ones' update), in the
    complement of the others, of least norm, then scaled to unit length."""
    disc, zetas, factors, rng, d = case
    p = zetas[0].shape[0]
    T = np.linalg.qr(rng.standard_normal((p, p - 1)))[0] if restricted else np.eye(p)
    m = T.shape[1]
    B = rng.standard_normal((m, d))
    Cs = [rng.standard_normal((d, z.shape[1])) for z in zetas]
    got = disc.update_b(T, B, Cs if disc.pooled else Cs[0])
    expected = B.copy()
    for k in range(d):
        others = np.delete(expected, k, axis=1)
        q = np.linalg.qr(others)[0] if d > 1 else np.zeros((m, 0))
        complement = np.eye(m) - q @ q.T
        targets, designs = [], []
        for z, G, C in zip(zetas, factors, Cs):
            residual = z - T @ others @ np.delete(C, k, axis=0)
            targets.append(_whiten(G, _vec(residual)))
            # vec(T b c_kᵀ) = (c_k ⊗ T) b
            designs.append(_whiten(G, np.kron(C[k][:, None], T)) @ complement)
        bk = np.linalg.pinv(np.vstack(designs), rcond=1e-10) @ np.concatenate(targets)
        expected[:, k] = bk / np.linalg.norm(bk)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


def test_minimum_is_a_stationary_point_of_the_dense_criterion(case):
    """The ALS's minimum against the dense criterion: no small move of B lowers it."""
    disc, zetas, factors, rng, d = case
    B, best, _ = disc.minimise(d, tol=1e-14, max_iter=20000)

    def dense(basis):  # C at its dense least-squares optimum
        total = 0.0
        for z, G in zip(zetas, factors):
            design = _whiten(G, np.kron(np.eye(z.shape[1]), basis))
            target = _whiten(G, _vec(z))
            coef = np.linalg.lstsq(design, target, rcond=None)[0]
            total += np.sum((target - design @ coef) ** 2)
        return 37.0 * total

    assert dense(B) == pytest.approx(best, rel=1e-10)
    for _ in range(10):
        assert dense(B + 1e-4 * rng.standard_normal(B.shape)) >= best * (1 - 1e-9)


def test_inverse_is_mirrored_from_the_factor_s_potri_triangle(case):
    disc, _, factors, _, _ = case
    for group, G in zip(disc.groups, factors):
        np.testing.assert_allclose(group.inverse, np.linalg.inv(G.T @ G), rtol=1e-10, atol=1e-12)
        assert group.inverse.flags.c_contiguous
    rng = np.random.default_rng(3)
    a = np.asfortranarray(rng.standard_normal((300, 300)))  # several mirror blocks
    expected = np.triu(a) + np.triu(a, 1).T
    np.testing.assert_array_equal(_symmetric_from_upper(a), expected)


def test_independence_form_is_the_dense_quadratic_form_or_declines():
    """vec(ζ)ᵀ Γ₀^{-1} vec(ζ) slice by slice equals the dense solve, also with one slice whose
    second moments are singular (R's last slice with fewer rows than predictors); with two
    such slices it declines, for the dense factor."""
    rng = np.random.default_rng(7)
    p, h = 4, 5
    A = helmert_basis(h)
    f = rng.dirichlet(np.full(h, 5.0))
    C = A - f @ A
    roots = rng.standard_normal((h, 3 * p, p))
    S = roots.transpose(0, 2, 1) @ roots / (3 * p * h)
    zeta, M = rng.standard_normal((p, h - 1)), 0.02 * rng.standard_normal((p, h - 1))

    def dense(second):
        gamma = sum(np.kron(np.outer(c, c), s) for c, s in zip(C, second))
        gamma -= np.outer(_vec(M), _vec(M))
        assert np.linalg.eigvalsh(gamma)[0] > 0  # a covariance, as Γ₀ is
        return _vec(zeta) @ np.linalg.solve(gamma, _vec(zeta))

    np.testing.assert_allclose(independence_form(zeta, A, f, S, M), dense(S), rtol=1e-10)
    singular = S.copy()
    singular[2] = roots[2, : p - 2].T @ roots[2, : p - 2] / (3 * p * h)  # rank p - 2
    np.testing.assert_allclose(
        independence_form(zeta, A, f, singular, M), dense(singular), rtol=1e-10
    )
    singular[4] = roots[4, : p - 1].T @ roots[4, : p - 1] / (3 * p * h)
    assert independence_form(zeta, A, f, singular, M) is None
