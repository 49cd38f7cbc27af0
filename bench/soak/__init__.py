"""The fault and load suite (`make soak`): see __main__.py."""
