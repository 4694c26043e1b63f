# Reference numbers from R `dr` for partial SIR and partial SAVE (`dr(..., group = ~G,
# method = "sir" | "save")`, Chiaromonte, Cook & Li 2002; Shao 2007), on the repository's
# data/ais.csv (DAAG's copy) and data/auto.csv (ISLR's).
#
# Run from the repository root:  Rscript tests/reference/make_r_dr_partial.R
# Writes tests/reference/r_dr_partial.json (read by tests/test_r_dr_partial.py). Needs base R
# and the CRAN package dr (3.0.10 or 3.0.11; it loads MASS).
#
# R's partial SIR keeps its pieces in the closures it returns: `zmeans` (the p x H matrix of
# each group's sqrt(n_gs/n_g) * slice means of z, group after group) and `Sigma.pool` live in
# the environment of `fit$test`; they are written out so that the tests can check sdrstats's
# per-group pieces exactly, whatever the weighting of the groups (see the test file).

suppressPackageStartupMessages(library(dr))
stopifnot(as.character(packageVersion("dr")) %in% c("3.0.10", "3.0.11"))
source("tests/reference/json_writer.R")  # to_json, rows, table_json, text_of

ais <- read.csv("data/ais.csv")
auto <- read.csv("data/auto.csv")
f4 <- lbm ~ log(ssf) + log(wt) + log(hg) + log(ht)
f8 <- lbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(wcc) + log(rcc) + log(hc) + log(ferr)
f_auto <- mpg ~ displacement + horsepower + weight + acceleration

coordinate_tests <- function(fit) {
  labels <- attr(fit$terms, "term.labels")
  out <- lapply(labels, function(label) {
    t <- dr.coordinate.test(fit, as.formula(paste("~ . -", label)))
    lapply(as.list(as.data.frame(t)), as.numeric)
  })
  names(out) <- labels
  out
}

partial <- function(fit, numdir) {
  s <- summary(fit)
  info <- fit$slice.info()
  env <- environment(fit$test)
  out <- list(
    call = paste(deparse(fit$call), collapse = " "),
    method = fit$method,
    predictors = rownames(fit$evectors),
    n = nrow(fit$x),
    evalues = as.numeric(fit$evalues),
    evectors_by_row = rows(fit$evectors),
    group_levels = as.character(unique(as.factor(fit$group))),
    group_slice_sizes = lapply(info, function(g) as.numeric(g$slice.sizes)),
    tests = table_json(fit$test(numdir)),
    r2 = as.numeric(s$evalues[2, ]),
    coordinate = coordinate_tests(fit),
    sigma_pool_by_row = rows(env$Sigma.pool),
    summary_text = text_of(s)
  )
  if (fit$method == "psir") out$zmeans_by_row <- rows(env$zmeans)
  if (fit$method == "psave") out$M_by_row <- rows(fit$M)
  out
}

ref <- list(dr_version = as.character(packageVersion("dr")), R_version = R.version.string)

# partial SIR: AIS by sex (100 and 102 rows), the first 200 rows (100 and 100: R's weighting of
# the groups and sdrstats's agree up to a factor 2), a pooled whitening, R's default 2 slices,
# and three unequal groups (auto by origin)
ref$psir_sex <- partial(dr(f8, data = ais, group = ~sex, method = "sir", nslices = 4), 4)
ref$psir_equal <- partial(dr(f8, data = ais[1:200, ], group = ~sex, method = "sir",
                             nslices = 4), 4)
ref$psir_pool <- partial(dr(f4, data = ais, group = ~sex, method = "sir", nslices = 5,
                            pool = TRUE), 4)
ref$psir_default <- partial(dr(f4, data = ais, group = ~sex), 2)
ref$psir_auto <- partial(dr(f_auto, data = auto, group = ~origin, method = "sir",
                            nslices = 3), 4)

# partial SAVE (numdir < p: R's summary of partial SAVE fails when numdir >= p)
ref$psave_sex <- partial(dr(f8, data = ais, group = ~sex, method = "save", nslices = 4), 4)
ref$psave_pool <- partial(dr(f4, data = ais, group = ~sex, method = "save", nslices = 5,
                             numdir = 3, pool = TRUE), 3)
ref$psave_default <- partial(dr(f4, data = ais, group = ~sex, method = "save", numdir = 3), 3)
ref$psave_auto <- partial(dr(f_auto, data = auto, group = ~origin, method = "save",
                             nslices = 3, numdir = 3), 3)

writeLines(to_json(ref), "tests/reference/r_dr_partial.json")
cat("wrote tests/reference/r_dr_partial.json\n")
