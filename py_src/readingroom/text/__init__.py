"""What every stage reads text with: sentences, kinds of lines, a token estimate."""
