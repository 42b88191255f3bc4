package torchpy_test

import (
	"path/filepath"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// TestZooEventsInOrder runs the zoo programs (testdata/models/zoo) listed
// here, a ratchet, on the simulated H100 they were recorded on, and
// checks their allocator events against the recording's, in order: what
// TestModelZoo's figures cannot show, a block that lives longer or
// shorter than PyTorch's while no figure moves (ddpm_unet's x.clone(),
// whose CloneBackward0 holds the concatenation's gradient until it
// runs, last of all). The session is not shared, but runScriptIn's
// bookkeeping is: they run one at a time.
func TestZooEventsInOrder(t *testing.T) {
	for _, name := range []string{
		"bert_mlm", "clip_train", "convnext_train", "ddpm_unet", "dlrm_train", "fast_neural_style", "gcn_train",
		"lora_finetune", "lstm_lm", "mobilenetv2_train", "pointnet_cls", "resnet18_fp16_infer", "resnet50_train",
		"unet_train", "vae_mnist", "vit_encoder_infer",
	} {
		t.Run(name, func(t *testing.T) {
			s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h100"], Backend: "sim", FakeHost: true, Devices: 1, DriverAddresses: true})
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("..", "testdata", "models", "zoo")
			runScriptIn(t, s, filepath.Join(dir, name+".py"))
			checkEvents(t, s, filepath.Join(dir, name+".jsonl"))
		})
	}
}
