// Seed 000's example: a chain of four 128x128xf32 matmuls after bufferization. Every
// intermediate has its own memref.alloc; %d0 is returned and must stay a real allocation.
// `memplan opt examples/matmul_chain.mlir --merge-alloc` puts %a0, %b0 and %c0 into one
// 131072-byte arena (a0 and c0 share bytes, b0 overlaps both in time).
func.func @mlp(%x: memref<128x128xf32>, %y: memref<128x128xf32>) -> memref<128x128xf32> {
  %a0 = memref.alloc() : memref<128x128xf32>
  linalg.matmul ins(%x, %y : memref<128x128xf32>, memref<128x128xf32>) outs(%a0 : memref<128x128xf32>)
  %b0 = memref.alloc() : memref<128x128xf32>
  linalg.matmul ins(%a0, %y : memref<128x128xf32>, memref<128x128xf32>) outs(%b0 : memref<128x128xf32>)
  %c0 = memref.alloc() : memref<128x128xf32>
  linalg.matmul ins(%b0, %y : memref<128x128xf32>, memref<128x128xf32>) outs(%c0 : memref<128x128xf32>)
  %d0 = memref.alloc() : memref<128x128xf32>
  linalg.matmul ins(%c0, %y : memref<128x128xf32>, memref<128x128xf32>) outs(%d0 : memref<128x128xf32>)
  memref.dealloc %a0 : memref<128x128xf32>
  memref.dealloc %b0 : memref<128x128xf32>
  memref.dealloc %c0 : memref<128x128xf32>
  return %d0 : memref<128x128xf32>
}
