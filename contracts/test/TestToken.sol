// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// The tests' stablecoin: 6 decimals like USDC, minted by its deployer.
contract TestToken is ERC20 {
    address private immutable minter;

    constructor() ERC20("Test USD Coin", "TUSDC") {
        minter = msg.sender;
    }

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external {
        require(msg.sender == minter, "not the minter");
        _mint(to, amount);
    }
}
