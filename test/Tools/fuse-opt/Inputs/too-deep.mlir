// 1,001 nested regions: beyond fuse-opt's nesting limit (generated for cli-errors.mlir).
func.func @f() {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.execute_region {
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
scf.yield
}
return
}
