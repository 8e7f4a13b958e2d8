"""Documents in: read, chunked, stored by their words first and embedded after."""
