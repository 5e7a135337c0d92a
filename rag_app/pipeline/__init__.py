"""The stages composed: a question and its conversation in, a streamed Answer out."""
