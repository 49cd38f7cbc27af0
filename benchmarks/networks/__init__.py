"""The reference recipes' models, in plain torch (there is no CPU torchvision here)."""
