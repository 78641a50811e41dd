"""Shared numerics of the experiment side: softmax, gradient checking, GD, slope fits, tests."""
