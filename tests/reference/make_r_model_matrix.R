# Reference model matrices from R for R-style formulas: the predictors' names, columns and
# rows that R's model.frame + model.matrix give (base R and its splines package), for the
# corpus of formulas an R user writes (^, I(), factor(), as.factor(), ordered(), as.numeric(), poly(), bs(), scale(),
# R's precedence of %%, %/%, ! and &,
# log1p(), exp(), -1, interactions, ., unused levels, missing values).
#
# Run from the repository root:  Rscript tests/reference/make_r_model_matrix.R
# Writes the data it uses, tests/reference/r_model_matrix_cars.csv and
# r_model_matrix_flowers.csv (made here with R's own random numbers, rounded so that a CSV
# holds them exactly), and tests/reference/r_model_matrix.json (read by
# tests/test_formula_r_model_matrix.py).
#
# How the reference is computed: model.frame(formula, data, na.action = na.omit,
# drop.unused.levels = TRUE), then model.matrix on its terms, the intercept column removed
# (SDR centres the predictors). For a formula written with - 1 or + 0 the reference is the
# same formula with its intercept, as sdrstats reads it (R would code the first factor in
# full, which centring makes collinear). Text columns are factors with levels in the C
# collation locale (character-code order), as sdrstats orders them.

source("tests/reference/json_writer.R")  # to_json
library(splines)  # bs(), part of base R's distribution
invisible(Sys.setlocale("LC_COLLATE", "C"))
set.seed(20240938)

# mtcars-like: numbers, integer codes, a logical, factors, an ordered factor, missing values
n <- 40
cars <- data.frame(
  mpg = round(rnorm(n, 20, 5), 1),
  hp = sample(60:300, n, replace = TRUE),
  wt = round(runif(n, 1.5, 5.5), 3),
  disp = round(runif(n, 70, 460), 1),
  qsec = round(runif(n, 14, 23), 2),
  cyl = sample(c(4L, 6L, 8L), n, replace = TRUE),
  am = sample(c(TRUE, FALSE), n, replace = TRUE),
  gear = sample(3:5, n, replace = TRUE),
  origin = sample(c("USA", "Japan", "Europe"), n, replace = TRUE),
  size = sample(c("small", "medium", "large"), n, replace = TRUE),
  make = sample(c("Ford", "Fiat", "Honda", "Mazda", "Volvo"), n, replace = TRUE),
  grade = sample(c("A", "B", "C"), n, replace = TRUE)
)
cars$disp[c(5, 23)] <- NA
cars$origin[12] <- NA

# iris-like, with R's dotted names
m <- 30
species <- rep(c("setosa", "versicolor", "virginica"), each = m / 3)
flowers <- data.frame(
  Sepal.Length = round(rnorm(m, 5.8, 0.8), 1),
  Sepal.Width = round(rnorm(m, 3, 0.4), 1),
  Petal.Length = round(runif(m, 1, 7), 1),
  Petal.Width = round(runif(m, 0.1, 2.5), 1),
  Species = species
)

write.csv(cars, "tests/reference/r_model_matrix_cars.csv", row.names = FALSE)
write.csv(flowers, "tests/reference/r_model_matrix_flowers.csv", row.names = FALSE)

# read back as sdrstats reads them: text as factors (C locale), then the declared types
size_levels <- c("small", "medium", "large")
grade_levels <- c("A", "B", "C", "D")  # D has no rows: dropped as an unused level
cars <- read.csv("tests/reference/r_model_matrix_cars.csv", stringsAsFactors = TRUE)
cars$size <- factor(as.character(cars$size), levels = size_levels, ordered = TRUE)
cars$grade <- factor(as.character(cars$grade), levels = grade_levels)
flowers <- read.csv("tests/reference/r_model_matrix_flowers.csv", stringsAsFactors = TRUE)

CARS <- c(
  "mpg ~ hp + wt",
  "mpg ~ .",
  "mpg ~ . - disp - qsec",
  "mpg ~ hp + I(hp^2) + wt",
  "mpg ~ hp + wt + hp^2",
  "mpg ~ I(wt^2) + I(wt^3) + qsec",
  "mpg ~ (hp + wt + qsec)^2",
  "mpg ~ (hp + wt + origin)^2",
  "mpg ~ hp * wt",
  "mpg ~ hp + hp:wt",
  "mpg ~ hp * wt * qsec",
  "mpg ~ factor(cyl) + wt",
  "mpg ~ as.factor(gear) + hp",
  "mpg ~ wt * factor(am)",
  "mpg ~ factor(cyl) * wt",
  "mpg ~ factor(am) + factor(cyl) + factor(am):factor(cyl)",
  "mpg ~ factor(cyl, levels = c(8, 6, 4)) + hp",
  "mpg ~ factor(cyl, levels = c(4, 6)) + hp",
  "mpg ~ factor(origin, levels = c(\"USA\", \"Japan\")) + wt",
  "mpg ~ origin + wt",
  "mpg ~ wt + wt:origin",
  "mpg ~ origin * size",
  "mpg ~ make + wt",
  "mpg ~ size + hp",
  "mpg ~ size + wt:size",
  "mpg ~ ordered(gear) + wt",
  "mpg ~ am + wt",
  "mpg ~ as.numeric(am) + wt",
  "mpg ~ as.numeric(origin) + hp",
  "mpg ~ cyl + gear + hp",
  "mpg ~ hp + wt + grade",
  "mpg ~ poly(hp, 2) + wt",
  "mpg ~ poly(hp, 3) + poly(wt, 2)",
  "mpg ~ poly(hp, 2, raw = TRUE) + wt",
  "mpg ~ poly(qsec, degree = 2) + origin",
  "mpg ~ bs(wt, df = 4) + hp",
  "mpg ~ bs(qsec, degree = 2, knots = c(17, 20)) + wt",
  "mpg ~ scale(hp) + scale(wt)",
  "mpg ~ scale(hp, center = FALSE) + wt",
  "mpg ~ log(hp) + log1p(wt) + exp(qsec/10)",
  "mpg ~ sqrt(disp) + abs(qsec - 18)",
  "mpg ~ log(disp) + I(1/wt)",
  "mpg ~ I((hp - 100)^2) + wt",
  "mpg ~ I(hp * wt) + I(hp/wt)",
  "mpg ~ exp(-wt) + I(-hp^2/1000)",
  "mpg ~ wt + I(wt > 3)",
  "mpg ~ hp + I(hp %% 7) + I(hp %/% 7)",
  "mpg ~ wt + I(2 * hp %% 7) + I(100 / hp %/% 7)",
  "mpg ~ wt + I(-hp %% 7) + I(qsec^2 %% 10)",
  "mpg ~ hp + I(!am)",
  "mpg ~ hp + I(!(wt > 3))",
  "mpg ~ hp + I(!am & wt > 3)",
  "mpg ~ hp + I(wt > 3 & hp < 200) + I(wt > 4 | !am)",
  "mpg ~ hp + wt - 1",
  "mpg ~ 0 + factor(cyl) + wt",
  "log(mpg) ~ hp + wt + origin",
  "I(mpg^2) ~ log(hp) + wt"
)
FLOWERS <- c(
  "Sepal.Length ~ .",
  "Sepal.Length ~ Petal.Length * Species",
  "Sepal.Length ~ Sepal.Width + Species + Petal.Width:Species",
  "Sepal.Length ~ poly(Petal.Length, 2) + Species",
  "log(Sepal.Length) ~ log(Petal.Length) + Petal.Width + Species - 1",
  "Sepal.Length ~ .^2"
)

with_intercept <- function(f) {
  # - 1 and + 0 are read as the formula with its intercept (see the header)
  if (attr(terms(f), "intercept") == 1) return(f)
  update(f, . ~ . + 1)
}

reference <- function(text, data, name) {
  f <- as.formula(text)
  if (!grepl("(^|[^[:alnum:]._])[.]([^[:alnum:]._]|$)", text)) f <- with_intercept(f)
  mf <- model.frame(f, data, na.action = na.omit, drop.unused.levels = TRUE)
  X <- model.matrix(attr(mf, "terms"), mf)
  X <- X[, colnames(X) != "(Intercept)", drop = FALSE]
  list(
    formula = text,
    data = name,
    names = colnames(X),
    rows = as.integer(rownames(X)) - 1L,  # 0-based positions in the CSV
    columns = lapply(seq_len(ncol(X)), function(j) as.numeric(X[, j])),
    response = as.numeric(model.response(mf, "numeric"))
  )
}

cases <- c(
  lapply(CARS, reference, data = cars, name = "cars"),
  lapply(FLOWERS, reference, data = flowers, name = "flowers")
)
ref <- list(
  r_version = R.version.string,
  size_levels = size_levels,
  grade_levels = grade_levels,
  cases = cases
)
writeLines(to_json(ref), "tests/reference/r_model_matrix.json")
