"""Model definitions the package's tests and benchmark share (the one copy of each):
:mod:`fuselab.models.workloads`, the 12 reference workloads as torch functions of their
inputs, and :mod:`fuselab.models.corpus`, real architectures at tiny sizes with random
weights. Importing this package imports neither (transformers is only needed by the
corpus)."""
