"""Reference training jobs (digits, CIFAR10, ImageNet, SQuAD). They arrive with the reference-jobs issue."""
