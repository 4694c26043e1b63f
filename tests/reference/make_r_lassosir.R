# Reference numbers from R `LassoSIR` (Lin, Zhao & Liu 2019) for sdrstats' lasso_sir.
#
# Run from the repository root:  Rscript tests/reference/make_r_lassosir.R
# Writes tests/reference/r_lassosir.json (read by tests/test_r_lassosir.py). Needs the CRAN
# packages LassoSIR (1.0) and glmnet (4.1-x, with its own dependencies); the JSON writer is
# below. The data are generated here and written into the JSON, so Python fits the very same
# numbers.
#
# What LassoSIR does, read from its source (LassoSIR 1.0), and what that means for the numbers:
# - It orders the rows by y, cuts them into H slices of m = n/H rows (n is a multiple of H in
#   every case below: with a remainder its pseudo-response weights the larger slices
#   differently), centres x but does not scale it, and takes the eigenvalues of
#   (1/H) sum_h xbar_h xbar_h' as d_j^2 / H from the SVD of the slice means. The predictors
#   below are therefore scaled to mean 0 and variance 1 (divisor n) before LassoSIR sees them,
#   so its unscaled eigen step and sdrstats' standardised one work on the same matrix.
# - Its pseudo-response is xbar_h' v_j / (lambda_j m^2): sdrstats' divided by m^2. glmnet's
#   penalty lambda therefore corresponds to sdrstats' (and scikit-learn's) alpha = m^2 lambda.
# - Each direction is a cv.glmnet fit (random folds) and a glmnet refit at the lambda with the
#   least CV error (the smallest such lambda, never the first of the path). The lambda is not
#   returned; it is recovered here by matching the returned direction against the direction's
#   deterministic glmnet path (solution.path = TRUE), fitted with the same pseudo-response.
# - choosing.d = "automatic" fits every one of min(p, H) directions, forms
#   s_j = lambda_j * ||beta_j||, and k-means-clusters s / s_1 into two groups; d is the size of
#   the smaller group. When p < H, `res.eigen.value[1:H] <- d^2 / H` recycles the p eigenvalues
#   to length H, so s holds every value twice when H = 2p (the first case below, R's own help
#   example): the choice is then twice that of the rule on the p genuine values.

suppressPackageStartupMessages({
  library(LassoSIR)
  library(glmnet)
})
RNGkind("Mersenne-Twister", "Inversion", "Rejection")

# ---- a small JSON writer (numbers with 17 significant digits) --------------------------------
json_number <- function(x) {
  out <- formatC(x, digits = 17, format = "g")
  out[is.na(x)] <- "null"
  gsub(" ", "", out)
}
as_json <- function(x) {
  if (is.null(x)) return("null")
  if (is.list(x)) {
    inner <- vapply(x, as_json, "")
    if (is.null(names(x))) return(paste0("[", paste(inner, collapse = ", "), "]"))
    return(paste0("{", paste(sprintf("\"%s\": %s", names(x), inner), collapse = ",\n"), "}"))
  }
  if (is.character(x)) {
    s <- sprintf("\"%s\"", x)
    return(if (length(x) == 1) s else paste0("[", paste(s, collapse = ", "), "]"))
  }
  if (is.matrix(x)) {  # a list of rows, each an array even when it holds one number
    inner <- apply(x, 1, function(r) paste0("[", paste(json_number(r), collapse = ", "), "]"))
    return(paste0("[", paste(inner, collapse = ",\n"), "]"))
  }
  s <- json_number(as.numeric(x))
  if (length(x) == 1) s else paste0("[", paste(s, collapse = ", "), "]")
}

# ---- data -------------------------------------------------------------------------------------
standardise <- function(X) {  # mean 0, variance 1 with divisor n
  X <- sweep(X, 2, colMeans(X))
  sweep(X, 2, sqrt(colMeans(X^2)), "/")
}
ar_cov <- function(p, rho) rho^abs(outer(seq_len(p), seq_len(p), "-"))

make_case <- function(name, n, p, H, d_true, truth, generate, seed) {
  set.seed(seed)
  data <- generate(n, p)
  list(name = name, n = n, p = p, H = H, d_true = d_true, truth = truth,
       X = standardise(data$X), y = as.numeric(data$y))
}

cases <- list(
  # LassoSIR's help example: p = 10 < H = 20, y = (x'beta)^3 / 2 + e, beta on x1..x3.
  make_case("help_example", 200, 10, 20, 1, c(1, 1, 1), function(n, p) {
    beta <- c(rnorm(3), rep(0, p - 3))
    X <- matrix(rnorm(n * p), n, p) %*% chol(ar_cov(p, 0.3))
    list(X = X, y = (X %*% beta)^3 / 2 + rnorm(n))
  }, 1),
  # A sparse single index, p > H: y = x'beta + 0.5 e, beta = (1,1,1,1,1,0,...)/sqrt(5).
  make_case("single_index", 200, 40, 10, 1, 1:5, function(n, p) {
    X <- matrix(rnorm(n * p), n, p)
    list(X = X, y = rowSums(X[, 1:5]) / sqrt(5) + 0.5 * rnorm(n))
  }, 2),
  # Two indices (Li 1991's rational model), AR(0.5) predictors:
  # y = b1'x / (0.5 + (1.5 + b2'x)^2) + 0.2 e, b1 on x1..x4, b2 on x7..x10.
  make_case("two_index", 400, 20, 10, 2, c(1:4, 7:10), function(n, p) {
    X <- matrix(rnorm(n * p), n, p) %*% chol(ar_cov(p, 0.5))
    b1 <- c(rep(1, 4), rep(0, p - 4)) / 2
    b2 <- c(rep(0, 6), rep(1, 4), rep(0, p - 10)) / 2
    u <- X %*% b1
    v <- X %*% b2
    list(X = X, y = u / (0.5 + (1.5 + v)^2) + 0.2 * rnorm(n))
  }, 3),
  # p > n: n = 100, p = 200, H = 5, y = (x1 + x2 + x3) / sqrt(3) + 0.2 e.
  make_case("p_above_n", 100, 200, 5, 1, 1:3, function(n, p) {
    X <- matrix(rnorm(n * p), n, p)
    list(X = X, y = rowSums(X[, 1:3]) / sqrt(3) + 0.2 * rnorm(n))
  }, 4)
)

seeds <- 1:5
unit <- function(b) b / sqrt(sum(b^2))

run_case <- function(cs) {
  X <- cs$X
  y <- cs$y
  H <- cs$H
  d <- cs$d_true
  auto <- lapply(seeds, function(s) {
    set.seed(s)
    LassoSIR(X, y, H = H, choosing.d = "automatic", screening = FALSE, nfolds = 10)
  })
  given <- lapply(seeds, function(s) {
    set.seed(s)
    LassoSIR(X, y, H = H, no.dim = d, screening = FALSE, nfolds = 10)
  })
  paths <- LassoSIR(X, y, H = H, no.dim = d, screening = FALSE, solution.path = TRUE)
  path_out <- lapply(seq_len(d), function(j) {
    fit <- paths[[j]]
    B <- as.matrix(fit$beta)
    # the lambda each seed's CV chose: the path column whose direction matches the returned one
    chosen <- vapply(given, function(g) {
      b <- as.matrix(g$beta)[, j]
      gap <- apply(B, 2, function(col) {
        if (all(col == 0)) return(Inf)
        u <- unit(col)
        min(sqrt(sum((u - b)^2)), sqrt(sum((u + b)^2)))
      })
      c(which.min(gap), min(gap))
    }, c(0, 0))
    keep <- sort(unique(c(seq(2, ncol(B), by = 6), chosen[1, ])))
    list(lambda = fit$lambda, a0 = as.numeric(fit$a0), columns = keep,
         beta = B[, keep, drop = FALSE], cv_index = chosen[1, ], cv_match_gap = chosen[2, ])
  })
  list(
    name = cs$name, n = cs$n, p = cs$p, H = cs$H, d_true = cs$d_true, truth = cs$truth,
    X = X, y = y,
    eigen_value = auto[[1]]$eigen.value,
    auto_d = vapply(auto, function(a) a$no.dim, 0),
    auto_beta = as.matrix(auto[[1]]$beta),
    given_beta = lapply(given, function(g) as.matrix(g$beta)),
    path = path_out
  )
}

out <- list(
  source = paste0("R ", getRversion(), ", LassoSIR ", packageVersion("LassoSIR"), ", glmnet ",
                  packageVersion("glmnet"), "; seeds ", paste(seeds, collapse = " "),
                  " for the cross-validation folds"),
  cases = lapply(cases, run_case)
)
writeLines(as_json(out), "tests/reference/r_lassosir.json")
cat("wrote tests/reference/r_lassosir.json\n")
