# Reference numbers from R `dr` for the parts of issue 15: Arc slicing (ties included), phdq,
# subset=, case weights and partial IRE, on the repository's data/ais.csv (DAAG's copy).
#
# Run from the repository root:  Rscript tests/reference/make_r_dr_extras.R
# Writes tests/reference/r_dr_extras.json (read by tests/r_dr_extras.py). Needs base R and the
# CRAN package dr (3.0.10 or 3.0.11; it loads MASS). No other package: the JSON writer is below.

suppressPackageStartupMessages(library(dr))
stopifnot(as.character(packageVersion("dr")) %in% c("3.0.10", "3.0.11"))

ais <- read.csv("data/ais.csv")
n <- nrow(ais)
# Case weights used by every weighted fit: a deterministic, uneven pattern with two zero
# weights (R drops rows with w <= 1e-30 and rescales the rest to sum to the cases kept).
w <- 0.5 + ((seq_len(n) * 37) %% 11) / 4
w[c(5, 77)] <- 0
ais$w <- w
ais$rlbm <- round(ais$lbm)  # a response with many ties, for Arc slicing

f <- lbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(wcc) + log(rcc) + log(hc) + log(ferr)
f_tied <- rlbm ~ log(ssf) + log(wt) + log(hg) + log(ht) + log(wcc) + log(rcc) + log(hc) + log(ferr)

source("tests/reference/json_writer.R")  # to_json, rows, table_json, text_of

# ---- common extract of a dr fit -------------------------------------------------------------
basic <- function(fit, tests = TRUE) {
  s <- summary(fit)
  out <- list(
    call = paste(deparse(fit$call), collapse = " "),
    predictors = rownames(fit$evectors),
    evalues = as.numeric(fit$evalues),
    evectors_by_row = rows(fit$evectors),
    n = fit$cases,
    summary_text = text_of(s)
  )
  if (!is.null(fit$slice.info)) out$slice_sizes <- as.numeric(fit$slice.info$slice.sizes)
  out$r2 <- as.numeric(s$evalues[2, ])
  if (tests) out$tests <- table_json(s$test)
  out
}

ref <- list(dr_version = as.character(packageVersion("dr")), R_version = R.version.string,
            weights = w)

# ---- 1. Arc slicing ---------------------------------------------------------------------------
arc_case <- function(y, h) {
  a <- dr.slices.arc(y, h)
  d <- dr.slices(y, h)
  list(y = y, h = h, arc_sizes = as.numeric(a$slice.sizes),
       arc_labels = as.numeric(a$slice.indicator), dr_sizes = as.numeric(d$slice.sizes))
}
ref$arc_examples <- list(
  arc_case(c(1, 2, 2, 2, 3, 4, 5, 6, 7, 8), 3),
  arc_case(c(1, 1, 2, 3, 3, 3, 4, 5, 6, 7, 8), 4),
  arc_case(as.numeric(1:10), 3),
  arc_case(as.numeric(1:10), 4),
  arc_case(c(1, 2, 3, 4, 5, 6, 7, 8, 9, 9), 3),
  arc_case(ais$lbm, 8),
  arc_case(ais$rlbm, 8),
  arc_case(as.numeric(ais$ferr), 11),
  arc_case(round(ais$ht / 5), 6)
)
ref$sir_arc <- basic(dr(f, data = ais, method = "sir", nslices = 8,
                        slice.function = dr.slices.arc))
ref$sir_arc_tied <- basic(dr(f_tied, data = ais, method = "sir", nslices = 8,
                             slice.function = dr.slices.arc))
ref$save_arc_tied <- basic(dr(f_tied, data = ais, method = "save", nslices = 8,
                              slice.function = dr.slices.arc))

# ---- 2. phdq ----------------------------------------------------------------------------------
ref$phdq <- basic(dr(f, data = ais, method = "phdq"))
ref$phdq$pearson_residuals <- as.numeric(dr.y(dr(f, data = ais, method = "phdq")))

# ---- 3. subset --------------------------------------------------------------------------------
ref$sir_subset <- basic(dr(f, data = ais, subset = sex == "f", method = "sir", nslices = 8))
ref$save_subset <- basic(dr(f, data = ais, subset = ht > 175, method = "save", nslices = 6))
ire_subset <- dr(f, data = ais, subset = sex == "m", method = "ire", nslices = 8, numdir = 2)

# ---- 4. case weights --------------------------------------------------------------------------
coord <- function(fit, hyp, ...) {
  t <- dr.coordinate.test(fit, hyp, ...)
  lapply(as.list(as.data.frame(t)), as.numeric)
}
for (m in c("sir", "save", "phdy", "phdres", "phdq")) {
  fit <- dr(f, data = ais, weights = w, method = m, nslices = 8)
  key <- paste0(m, "_weighted")
  ref[[key]] <- basic(fit)
  if (m %in% c("sir", "save")) {
    ref[[key]]$coordinate_hg <- coord(fit, ~ . - log(hg))
    ref[[key]]$coordinate_hg_d2 <- coord(fit, ~ . - log(hg), d = 2)
  }
}
ref$sir_weighted$dropped_rows <- c(5, 77)
ref$sir_weighted$rescaled_weights <- as.numeric(dr(f, data = ais, weights = w)$weights)

# ---- 5. IRE: ordinary (weighted, subset) and partial IRE ------------------------------------
ire_extract <- function(fit, hyps = list(hg = ~ . - log(hg), ht = ~ . - log(ht))) {
  s <- summary(fit)
  nd <- length(fit$result)
  bases <- lapply(seq_len(nd), function(d) rows(dr.basis(fit, d)))
  names(bases) <- as.character(seq_len(nd))
  out <- list(call = paste(deparse(fit$call), collapse = " "),
              predictors = rownames(dr.basis(fit, 1)),
              n = fit$cases, tests = table_json(s$test), bases_by_row = bases,
              summary_text = text_of(s))
  if (!is.null(fit$slice.info)) out$slice_sizes <- as.numeric(fit$slice.info$slice.sizes)
  if (!is.null(fit$group.stats)) {
    out$group_levels <- as.character(unique(as.factor(fit$group)))
    out$group_n <- sapply(fit$group.stats, function(g) g$cases)
    out$group_slice_sizes <- lapply(fit$group.stats, function(g)
      as.numeric(g$slice.info$slice.sizes))
  }
  ct <- list()
  for (nm in names(hyps)) {
    ct[[paste0(nm, "_marginal")]] <- coord(fit, hyps[[nm]])
    ct[[paste0(nm, "_d1")]] <- coord(fit, hyps[[nm]], d = 1)
    ct[[paste0(nm, "_d2")]] <- coord(fit, hyps[[nm]], d = 2)
  }
  out$coordinate <- ct
  out
}
ref$ire_weighted <- ire_extract(dr(f, data = ais, weights = w, method = "ire", nslices = 8,
                                   numdir = 3))
ref$ire_subset <- ire_extract(ire_subset)
ref$pire_sex <- ire_extract(dr(f, data = ais, group = ~ sex, method = "ire", numdir = 3))
ref$pire_sex_h6 <- ire_extract(dr(f, data = ais, group = ~ sex, method = "ire", nslices = 6,
                                  numdir = 2))
ais$tall <- ifelse(ais$ht > 180, "tall", "short")
ref$pire_tall_arc <- ire_extract(dr(f, data = ais, group = ~ tall, method = "ire", nslices = 8,
                                    numdir = 2, slice.function = dr.slices.arc))
# R's dr() drops zero-weight rows from X and y but not from the group, so partial IRE with a
# zero weight fails in R; the weighted partial IRE uses positive weights.
ais$wpos <- pmax(w, 0.25)
ref$weights_positive <- ais$wpos
ref$pire_weighted <- ire_extract(dr(f, data = ais, group = ~ sex, weights = wpos, method = "ire",
                                    nslices = 8, numdir = 2))

writeLines(to_json(ref), "tests/reference/r_dr_extras.json")
cat("wrote tests/reference/r_dr_extras.json\n")
