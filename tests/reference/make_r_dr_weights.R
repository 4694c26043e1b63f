# Reference statistics of R dr's dr.weights (Cook & Nachtsheim 1994 reweighting) on the
# repository's data/ais.csv: the weights are random (random normal points, and a robust
# covariance by random subsets), so the reference is their average over many seeds, per row,
# with cov.rob's "mcd" method (the estimator sdrstats uses) and its default "mve".
#
# Run from the repository root:  Rscript tests/reference/make_r_dr_weights.R
# Writes tests/reference/r_dr_weights.json (read by tests/test_dr_weights.py). Needs base R and
# the CRAN package dr (3.0.10 or 3.0.11; it loads MASS).

suppressPackageStartupMessages(library(dr))
stopifnot(as.character(packageVersion("dr")) %in% c("3.0.10", "3.0.11"))
source("tests/reference/json_writer.R")

ais <- read.csv("data/ais.csv")
runs <- 40
one <- function(seed, method) {
  set.seed(seed)
  dr.weights(~ ht + wt + rcc, data = ais, method = method)
}
mean_of <- function(method) {
  w <- sapply(seq_len(runs), one, method = method)
  list(mean = rowMeans(w), zero_fraction = mean(w == 0), sd = mean(apply(w, 2, sd)),
       half1 = rowMeans(w[, 1:(runs / 2)]), half2 = rowMeans(w[, (runs / 2 + 1):runs]))
}
ref <- list(runs = runs, formula = "~ ht + wt + rcc", mcd = mean_of("mcd"), mve = mean_of("mve"))
writeLines(to_json(ref), "tests/reference/r_dr_weights.json")
cat("wrote tests/reference/r_dr_weights.json\n")
