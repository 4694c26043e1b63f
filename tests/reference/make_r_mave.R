# Reference numbers from R `MAVE` (Hang & Xia, CRAN) for sdrstats' MAVE family: the directions
# of every dimension (mave), and mave.dim's CV values and chosen dimension, for csMAVE, csOPG,
# meanMAVE and meanOPG on R's own help-page models and a few more.
#
# Run from the repository root:  Rscript tests/reference/make_r_mave.R
# Writes tests/reference/r_mave.json (read by tests/test_r_mave.py). Needs base R and the CRAN
# package MAVE 1.3.11 (with Rcpp, RcppArmadillo and mda). No other package: the JSON writer is
# below.
#
# No case has 200 <= n < 300: there R groups the rows in pairs to choose its centres and takes
# the member nearer the pair's mean, a tie that only the rounding of its arithmetic breaks.
#
# Every data set is drawn here with R's generator and rounded to 3 decimals *before* R fits it,
# and the rounded numbers are written to the JSON, so the Python tests fit exactly the numbers
# R fitted.

suppressPackageStartupMessages(library(MAVE))
stopifnot(as.character(packageVersion("MAVE")) == "1.3.11")

# ---- a small JSON writer (results with 13 significant digits, far below the tests'
# tolerances; data with their 3 decimals) ----
num <- function(x, digits = 13) {
  if (length(x) == 0) return("[]")
  s <- ifelse(is.na(x), "null", formatC(x, digits = digits, format = "g"))
  gsub(" ", "", s)
}
to_json <- function(x) {
  if (is.null(x)) return("null")
  if (inherits(x, "data3")) {  # rounded data: print as given, without trailing digits
    return(paste0("[", paste(gsub(" ", "", format(as.numeric(x), drop0trailing = TRUE,
                                                   scientific = FALSE, trim = TRUE)),
                             collapse = ","), "]"))
  }
  if (is.list(x)) {
    nm <- names(x)
    parts <- vapply(x, to_json, "")
    if (is.null(nm)) return(paste0("[", paste(parts, collapse = ", "), "]"))
    return(paste0("{", paste(sprintf("\"%s\": %s", nm, parts), collapse = ", "), "}"))
  }
  if (is.character(x)) {
    s <- sprintf("\"%s\"", gsub("\"", "\\\\\"", x))
    return(if (length(x) == 1) s else paste0("[", paste(s, collapse = ", "), "]"))
  }
  s <- num(as.numeric(x))
  if (length(x) == 1 && is.null(dim(x))) s else paste0("[", paste(s, collapse = ", "), "]")
}
data3 <- function(m) structure(round(as.numeric(m), 3), class = "data3")  # column-major

# ---- one reference case: data, then for each method the directions, ky's size, CV --------------
fit_case <- function(x, y, methods, note) {
  x <- round(x, 3)
  y <- round(as.matrix(y), 3)
  out <- list(note = note, n = nrow(x), p = ncol(x), q = ncol(y),
              x = data3(x), y = data3(y), fits = list())
  for (m in methods) {
    dr <- mave(y ~ x, method = m)
    dd <- mave.dim(dr)
    dirs <- lapply(seq_len(dr$max.dim), function(k) as.numeric(dr$dir[[k]]))  # column-major
    out$fits[[tolower(m)]] <- list(
      max_dim = dr$max.dim, kept = as.numeric(dr$idx), ky_columns = ncol(dr$ky),
      directions = dirs, cv = as.numeric(dd$cv[seq_len(dr$max.dim)]), cv0 = dd$cv0,
      dim_min = dd$dim.min
    )
  }
  out
}

four <- c("csMAVE", "csOPG", "meanMAVE", "meanOPG")
ref <- list(MAVE_version = as.character(packageVersion("MAVE")), R_version = R.version.string,
            cases = list())

# 1. R's predict.mave example: Y = X b1 + X b2 + e, p = 10, training half n = 500; the central
#    mean subspace is span(b1 + b2) (d = 1). Seeds 1..3.
for (s in 1:3) {
  set.seed(s)
  X <- matrix(rnorm(10000), 1000, 10)
  beta1 <- as.matrix(c(1, 1, 1, 1, 0, 0, 0, 0, 0, 0))
  beta2 <- as.matrix(c(0, 0, 0, 1, 1, 1, 1, 1, 0, 0))
  err <- as.matrix(rnorm(1000))
  Y <- X %*% beta1 + X %*% beta2 + err
  train <- sample(1:1000)[1:500]
  ref$cases[[sprintf("predict_mave_seed%d", s)]] <- fit_case(
    X[train, ], Y[train], "meanOPG",
    sprintf("predict.mave example, set.seed(%d); truth span(b1 + b2), d = 1", s))
}

# 2. R's mave and mave.dim example: y = x b1 + (x b2) e, n = 400, p = 5; central subspace
#    span(b1, b2) (d = 2), central mean subspace span(b1) (d = 1). Four methods.
for (s in 1) {
  set.seed(100 + s)
  x <- matrix(rnorm(400 * 5), 400, 5)
  b1 <- matrix(c(1, 1, 0, 0, 0), 5, 1)
  b2 <- matrix(c(0, 0, 1, 1, 0), 5, 1)
  eps <- matrix(rnorm(400), 400, 1)
  y <- x %*% b1 + (x %*% b2) * eps
  ref$cases[[sprintf("classic_seed%d", 100 + s)]] <- fit_case(
    x, y, four, sprintf("mave.dim example, set.seed(%d); CS span(b1, b2), CMS span(b1)", 100 + s))
}

# 3. The same model at n = 100 (every observation is a centre), csOPG and csMAVE.
set.seed(7)
x <- matrix(rnorm(100 * 5), 100, 5)
y <- x[, 1] + x[, 2] + (x[, 3] + x[, 4]) * rnorm(100)
ref$cases$classic_n100 <- fit_case(x, y, c("csOPG", "csMAVE"), "n = 100, set.seed(7)")

# 4. A single index with p = 6 > 5, so the MAVE variants mix OPG steps (k = 6) and MAVE steps.
set.seed(11)
x <- matrix(rnorm(300 * 6), 300, 6)
y <- sin(x[, 1] - x[, 2]) + 0.5 * (x[, 1] - x[, 2]) + 0.2 * rnorm(300)
ref$cases$single_index_p6 <- fit_case(x, y, four, "sin(b'x) + b'x/2, b = e1 - e2, set.seed(11)")

# 5. R's vignette example with two responses (CS of both), n = 300.
set.seed(12345)
n <- 300
x <- matrix(rnorm(n * 5), n, 5)
beta1 <- matrix(c(0.717, 0.717, 0, 0, 0))
beta2 <- matrix(c(0, 0, 0.717, 0.717, 0))
beta3 <- matrix(c(0, 0, 0, 0, 1))
y1 <- (x %*% beta1) / (1 + 2 * (x %*% beta2)^2) + (x %*% beta3) * rnorm(n)
y2 <- (x %*% beta3)^2 + rnorm(n)
ref$cases$vignette_two_responses <- fit_case(x, cbind(y1, y2), c("csOPG", "meanOPG"),
                                             "vignette's y = cbind(y1, y2), n = 300")

# 6. Screening: p = 30 > n / log(n), so distance-correlation screening keeps 22 predictors.
set.seed(21)
x <- matrix(rnorm(100 * 30), 100, 30)
y <- x[, 1] + x[, 2] + 0.3 * rnorm(100)
ref$cases$screening_p30 <- fit_case(x, y, "meanOPG", "y = x1 + x2 + e, n = 100, p = 30")

# 7. No dependence: y independent of x; mave.dim picks d = 0 on this seed.
set.seed(3)
x <- matrix(rnorm(150 * 3), 150, 3)
y <- rnorm(150)
ref$cases$noise <- fit_case(x, y, "meanOPG", "y independent of x, set.seed(3)")

writeLines(to_json(ref), "tests/reference/r_mave.json")
cat("wrote tests/reference/r_mave.json\n")
