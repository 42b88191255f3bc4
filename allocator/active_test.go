package allocator

import (
	"math/rand/v2"
	"testing"
)

// TestActiveSetMatchesMap drives the table and a Go map with the same
// random puts and deletes, with addresses that collide often.
func TestActiveSetMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s activeSet
	want := map[uint64]*Block{}
	for i := 0; i < 200000; i++ {
		p := uint64(rng.IntN(3000)+1) * 512
		if rng.IntN(2) == 0 {
			b := &Block{ptr: p}
			s.put(p, b)
			want[p] = b
		} else {
			s.take(p)
			delete(want, p)
		}
		if i%1000 == 0 || i > 199000 {
			if s.n != len(want) {
				t.Fatalf("op %d: %d entries, want %d", i, s.n, len(want))
			}
			for k, v := range want {
				if got, ok := s.take(k); !ok || got != v {
					t.Fatalf("op %d: take(%d) = %v, %v", i, k, got, ok)
				}
				s.put(k, v)
			}
		}
	}
	if _, ok := s.take(7 * 512 * 100000); ok {
		t.Error("found an address never put")
	}
}
