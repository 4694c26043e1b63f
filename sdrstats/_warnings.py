"""Warning classes of sdrstats, in one place so users can filter them by class."""


class SDRWarning(UserWarning):
    """Base class of every warning sdrstats emits."""


class ConvergenceWarning(SDRWarning):
    """An iterative fit stopped at its iteration limit before meeting its tolerance."""


class MissingValueWarning(SDRWarning):
    """Rows with missing values were dropped before fitting (the message says how many)."""


class CollinearityWarning(SDRWarning):
    """The predictors are nearly collinear; directions may be poorly determined."""


__all__ = ["SDRWarning", "ConvergenceWarning", "MissingValueWarning", "CollinearityWarning"]
