"""Cloud price catalog and cost policies. Empty until the pricing issue lands: costs today are as submitted."""
