package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestCardCheckExplained: the card check made on the H100
// (scripts/card_check.py, testdata/cards/h100) is read as its README
// says: its counts are the file's, and every script whose recording
// differed on the H100 is named there with why.
func TestCardCheckExplained(t *testing.T) {
	b, err := os.ReadFile("../../testdata/cards/h100/card_check.json")
	if err != nil {
		t.Fatal(err)
	}
	var check struct {
		Card    string
		Scripts map[string]struct{ Status string }
		Counts  map[string]int
	}
	if err := json.Unmarshal(b, &check); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../testdata/cards/h100/README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	differs := 0
	for name, s := range check.Scripts {
		if s.Status != "same" {
			differs++
			if !strings.Contains(text, name) {
				t.Errorf("%s differs on the %s and the README does not say why", name, check.Card)
			}
		}
	}
	if check.Card != "NVIDIA H100 80GB HBM3" || differs != check.Counts["differs"] || len(check.Scripts) != 209 ||
		!strings.Contains(text, "209 scripts, 196 the same") || check.Counts["same"] != 196 {
		t.Errorf("card %q, %d scripts, counts %v (%d differ): not what the README says", check.Card, len(check.Scripts), check.Counts, differs)
	}
}
