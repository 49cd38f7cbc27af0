"""The reference training job, in plain Python and torch (no Django): the configuration, the data path with
echoing, the timer, the epoch loop that stops at the threshold, and the record of a run."""
