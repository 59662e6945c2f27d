// Two short articles for the scan tests: one about a kite festival, one a soup recipe.
export const KITE = [
  'Every spring the flat fields behind the old airfield fill with kites. Families arrive with picnic blankets and cheap nylon diamonds, while a handful of enthusiasts unpack huge stunt kites that need two lines and a good deal of nerve to control.',
  'The festival began fifteen years ago as a gathering of six friends who built their own frames from garden canes. It now draws several thousand visitors, a row of food stalls and a competition for the most unusual home-made design, won last year by a kite shaped like a flying teapot.',
  'Organisers say the secret is the wind. The airfield sits on a low ridge with nothing to break the breeze for miles, so even on a still morning in town there is usually enough lift on the field by midday to keep the smallest kites in the air.',
];
export const SOUP = [
  'A good vegetable soup starts long before the pot goes on the stove. Sweat the onions slowly in butter until they turn soft and sweet, then add carrots, celery and a pinch of salt, and let them cook gently for another ten minutes without browning.',
  'Pour in enough stock to cover the vegetables by a finger, add a bay leaf and a handful of lentils, and simmer until everything is tender. Season at the end rather than the beginning, because the stock reduces and the flavour concentrates as it cooks.',
];
