# Reference numbers from R `dr` for the formula front: R's order of the predictors (a factor
# between numeric terms, an interaction, a factor of a numeric code), R's treatment coding and
# reference levels, and R's dotted column names used unquoted.
#
# Run from the repository root:  Rscript tests/reference/make_r_formula.R
# Writes tests/reference/r_formula.json (read by tests/test_formula_r_order.py). Needs base R
# and the CRAN package dr (3.0.10 or 3.0.11).
#
# Factor levels of text columns depend on R's collation locale; the fits below use the C
# locale (character-code order), which is the order sdrstats uses. The levels of ais$sport
# under the session's own collation are recorded too ("sport_levels_locale"), to show where
# another locale would differ.

suppressPackageStartupMessages(library(dr))
stopifnot(as.character(packageVersion("dr")) %in% c("3.0.10", "3.0.11"))
source("tests/reference/json_writer.R")  # to_json, rows

locale_levels <- levels(factor(read.csv("data/ais.csv")$sport))
invisible(Sys.setlocale("LC_COLLATE", "C"))
ais <- read.csv("data/ais.csv", stringsAsFactors = TRUE)   # factors: levels in C order
auto <- read.csv("data/auto.csv")

extract <- function(fit) list(
  predictors = rownames(fit$evectors),
  evalues = as.numeric(fit$evalues),
  evectors_by_row = rows(fit$evectors),
  n = fit$cases
)

# R's names as exported data keep them: dots inside (the columns are renamed copies of ais's)
dotted <- data.frame(Lean.Body.Mass = ais$lbm, Wt.kg = ais$wt, Ht.cm = ais$ht,
                     Sum.Skin.Folds = ais$ssf, Sex.Code = ais$sex)

ref <- list(
  r_version = R.version.string,
  dr_version = as.character(packageVersion("dr")),
  sport_levels_C = levels(ais$sport),
  sport_levels_locale = locale_levels,
  factor_between = extract(dr(lbm ~ log(wt) + sex + log(ht) + log(ssf), data = ais,
                              method = "sir", nslices = 8)),
  interaction = extract(dr(lbm ~ log(ssf) * sex + log(wt), data = ais, method = "save",
                           nslices = 8)),
  sport = extract(dr(lbm ~ log(wt) + sport + log(ht), data = ais, method = "sir",
                     nslices = 8)),
  origin = extract(dr(mpg ~ displacement + factor(origin) + weight, data = auto,
                      method = "sir", nslices = 8)),
  dotted = extract(dr(Lean.Body.Mass ~ log(Wt.kg) + Sex.Code + log(Ht.cm) + Sum.Skin.Folds,
                      data = dotted, method = "sir", nslices = 8))
)
writeLines(to_json(ref), "tests/reference/r_formula.json")
