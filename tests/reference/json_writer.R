# A small JSON writer for the reference scripts (base R only; numbers with 17 significant
# digits). Sourced by make_r_*.R, run from the repository root.

num <- function(x) {
  if (length(x) == 0) return("[]")
  s <- ifelse(is.na(x), "null", ifelse(is.infinite(x), ifelse(x > 0, "1e999", "-1e999"),
                                        formatC(x, digits = 17, format = "g")))
  s <- gsub(" ", "", s)
  s
}
to_json <- function(x) {
  if (is.null(x)) return("null")
  if (is.list(x)) {
    nm <- names(x)
    parts <- vapply(x, to_json, "")
    if (is.null(nm)) return(paste0("[", paste(parts, collapse = ", "), "]"))
    return(paste0("{", paste(sprintf("\"%s\": %s", gsub("\"", "\\\\\"", nm), parts),
                             collapse = ", "), "}"))
  }
  if (is.character(x)) {
    esc <- gsub("\n", "\\\\n", gsub("\"", "\\\\\"", gsub("\\\\", "\\\\\\\\", x)))
    s <- sprintf("\"%s\"", esc)
    return(if (length(x) == 1) s else paste0("[", paste(s, collapse = ", "), "]"))
  }
  if (is.logical(x)) x <- as.numeric(x)
  s <- num(as.numeric(x))
  if (length(x) == 1 && is.null(dim(x))) s else paste0("[", paste(s, collapse = ", "), "]")
}
rows <- function(m) lapply(seq_len(nrow(m)), function(i) as.numeric(m[i, ]))
table_json <- function(t) {  # a data frame / matrix of tests: row names and columns
  t <- as.data.frame(t)
  c(list(rows = rownames(t)), lapply(as.list(t), as.numeric))
}
text_of <- function(x) paste(capture.output(print(x)), collapse = "\n")

