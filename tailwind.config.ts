// Tailwind 4 reads its theme from src/styles.css (@theme); this file names the sources and the
// brand colours for tools that still look for a config.
export default {
  content: ['./index.html', './src/**/*.{ts,tsx}'],
  theme: {
    extend: {
      colors: { brand: { DEFAULT: '#0b5c4b', dark: '#07392f', light: '#e6f2ef' } },
    },
  },
};
