"""Property and fuzz tests: the readers, layouts, grammar executors, decoders and config loader
on arbitrary and mutated input (no crash, no hang, memory bounded by the input's size)."""
