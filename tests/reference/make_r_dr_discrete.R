# Reference numbers from R `dr` for discrete and categorical responses: slicing by value when a
# response has at most nslices distinct values, the test rows a 2-class response has (SIR and
# SAVE), and IRE's per-dimension bases (`dr.basis(fit, k)` is the k-D solution).
#
# Run from the repository root:  Rscript tests/reference/make_r_dr_discrete.R
# Writes tests/reference/r_dr_discrete.json (read by tests/test_discrete_response.py). Needs base
# R and the CRAN package dr (3.0.10 or 3.0.11). The simulated data are written into the JSON,
# so Python fits the very numbers R fitted.

suppressPackageStartupMessages(library(dr))
stopifnot(as.character(packageVersion("dr")) %in% c("3.0.10", "3.0.11"))
source("tests/reference/json_writer.R")

set.seed(20261203)
n <- 200
x <- matrix(round(rnorm(n * 8), 6), n, 8)
colnames(x) <- paste0("x", 1:8)
two <- data.frame(x, g = as.numeric(x[, 1] + 0.5 * rnorm(n) > 0))
three <- data.frame(x, g = cut(x[, 1] + x[, 2] + 0.5 * rnorm(n), c(-Inf, -0.5, 0.5, Inf),
                              labels = FALSE))

fit_two_sir <- dr(g ~ ., data = two, method = "sir")
fit_two_save <- dr(g ~ ., data = two, method = "save")
fit_three_sir <- dr(g ~ ., data = three, method = "sir")

small <- data.frame(x1 = c(0.3, -1.2, 0.8, 1.5, -0.4, 0.1), x2 = c(1.1, 0.2, -0.7, 0.4, -1.3, 0.9),
                    y = c(1, 1, 1, 0, 0, 0))
fit_small <- dr(y ~ x1 + x2, data = small, nslices = 10)

ais <- read.csv("data/ais.csv")
fit_ire <- dr(lbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(rcc), data = ais,
              method = "ire", numdir = 4)

ref <- list(
  two = list(x_by_row = rows(x), g = two$g,
             sir = list(evalues = fit_two_sir$evalues, tests = table_json(summary(fit_two_sir)$test),
                        slice_sizes = fit_two_sir$slice.info$slice.sizes),
             save = list(evalues = fit_two_save$evalues,
                         tests = table_json(summary(fit_two_save)$test))),
  three = list(g = three$g,
               sir = list(evalues = fit_three_sir$evalues,
                          tests = table_json(summary(fit_three_sir)$test))),
  small = list(y = small$y, x1 = small$x1, x2 = small$x2,
               slice_sizes = fit_small$slice.info$slice.sizes,
               evalues = fit_small$evalues),
  ire_basis = list(k2_by_row = rows(dr.basis(fit_ire, 2)), k4_by_row = rows(dr.basis(fit_ire, 4)))
)
writeLines(to_json(ref), "tests/reference/r_dr_discrete.json")
cat("wrote tests/reference/r_dr_discrete.json\n")
