"""boostlib: one boosting loop with pluggable direction, step and learner."""
