"""No task-pane scripts: this project serves rooflinexl's custom functions only."""
